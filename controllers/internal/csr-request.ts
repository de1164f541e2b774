/**
 * The parsed PKCS#10 request of a CertificateSigningRequest, for the csrapproving and csrsigning
 * controllers: a request that does not parse will never parse, so it ends the key's retries
 * (TerminalError, the established "unable to parse csr" message) instead of backing off forever.
 */
import type { CertificateSigningRequest } from '../../src/api/generated/kinds.js';
import { CsrParseError, parseCsr, type ParsedCsr } from '../../src/api/certificate-signers.js';
import { TerminalError } from '../../src/runtime/outcome.js';

export async function parsedRequestOf(csr: CertificateSigningRequest): Promise<ParsedCsr> {
  try {
    return await parseCsr(csr.spec?.request ?? '');
  } catch (e) {
    if (e instanceof CsrParseError) throw new TerminalError(`unable to parse csr "${csr.metadata.name}": ${e.message}`);
    throw e;
  }
}
