/**
 * Shuffle sharding (the established shufflesharding.Dealer): a flow's 64-bit hash deals it a hand
 * of `handSize` distinct queues out of `deckSize`, so two heavy flows rarely share a whole hand and
 * a light flow nearly always finds a short queue in its own.
 *
 * The hash is the established one: SHA-256 of `<flow schema name> NUL <distinguisher>`, its first
 * 8 bytes read little-endian. Dealing takes successive remainders of the hash by deckSize,
 * deckSize-1, ...; each remainder picks among the cards not yet dealt. Arithmetic is on BigInt:
 * the hash uses all 64 bits.
 */
import { createHash } from 'node:crypto';
import { MAX_HASH_BITS, requiredEntropyBits } from '../../api/kinds/flowcontrol/priority-level.js';

/** The established hashFlowID. */
export function hashFlowId(flowSchemaName: string, distinguisher: string): bigint {
  const h = createHash('sha256');
  h.update(flowSchemaName);
  h.update(Buffer.of(0));
  h.update(distinguisher);
  return h.digest().readBigUInt64LE(0);
}

export class Dealer {
  constructor(
    readonly deckSize: number,
    readonly handSize: number,
  ) {
    if (deckSize <= 0 || handSize <= 0) throw new Error(`deckSize ${deckSize} and handSize ${handSize} must be positive`);
    if (handSize > deckSize) throw new Error(`handSize ${handSize} is greater than deckSize ${deckSize}`);
    if (requiredEntropyBits(deckSize, handSize) > MAX_HASH_BITS) {
      throw new Error(`required entropy bits of deckSize ${deckSize} and handSize ${handSize} is greater than ${MAX_HASH_BITS}`);
    }
  }

  /** The hand for `hash`: `handSize` distinct card indices in [0, deckSize), in dealing order. */
  deal(hash: bigint): number[] {
    const remainders: number[] = [];
    let h = hash;
    for (let i = 0; i < this.handSize; i++) {
      const d = BigInt(this.deckSize - i);
      remainders.push(Number(h % d));
      h /= d;
    }
    const hand: number[] = [];
    for (let i = 0; i < this.handSize; i++) {
      let card = remainders[i]!;
      // Skip over the cards already dealt (the established insertion walk).
      for (let j = i; j > 0; j--) if (card >= remainders[j - 1]!) card++;
      hand.push(card);
    }
    return hand;
  }
}
