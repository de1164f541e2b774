/** What the profile of the scheduler benchmark showed; kept with the figures in docs/benchmarks.md. */
export const SCHEDULER_NOTES = `What limits it (\`node --max-semi-space-size=64 --cpu-prof dist/bench/try-scheduler.js\` with N=5000 BG=1000 M=10000, in process;
\`dist/bench/try-scheduler-https.js\` with PROF=<dir> profiles the apiserver process of the HTTPS case too):
per pod the scheduler filters about 500 nodes (the adaptive 10% of 5,000, at least 100) and scores
the feasible ones; each pod costs the API server three writes (create, binding, Scheduled event)
and their watch deliveries. After the changes below no single item is large: garbage collection
(about 9%), the SQLite transactions of the three writes (8%), the score loop (5%), the first read of
each visited node's row in the filter loop (5%: whichever filter reads first pays the cache miss),
decoding stored objects for the watch cache and the binding's read (4%), JSON encoding (4%).

What changed on 2026-11-26, each measured against the commit before in the same hour (try scripts,
two or three runs each): the numbers filters and scores need per node moved from the NodeInfo
objects (scattered on the heap, large numbers boxed) into one table of rows in the order the cycle
walks them (node-table.ts), and scores into typed arrays: the decision alone at 5,000 nodes 300 ->
140 µs per pod (\`dist/bench/try-schedule-cycle.js\`), in process ~620 -> ~750 pods/s; explanation
scores ranked on first read, binding without re-validating the pod (as established), NodeName,
VolumeRestrictions and VolumeZone decided without per-node lists: ~750 -> ~840; bindings run as
actors of their own instead of children of the scheduler machine (xstate copies a machine's
children on every spawn and stop, so each pod cost time linear in the bindings in flight, hundreds
here), the flush timers in a child machine, one cycle-runner actor instead of an actor per cycle:
the machine's own cost per pod 1.9 ms (with 2,000 bindings in flight) / 100 µs -> 48 µs
(\`dist/bench/try-scheduler-machine.js\`), in process ~840 -> ~1,090; the client speaks HTTP/1.1 by
default (Node's HTTP/2 client path costs more CPU per request) with one TLS context per client:
over HTTPS ~600 -> ~950; the daemons run Node with a 64 MiB young generation (scavenges were ~13% of
CPU): in process ~950 -> ~1,070 at the same commit. Figures move with this shared machine's load by
about 5-10% between runs.`;
