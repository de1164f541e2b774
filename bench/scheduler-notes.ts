/** What the profile of the scheduler benchmark showed; kept with the figures in docs/benchmarks.md. */
export const SCHEDULER_NOTES = `What limits it (\`node --cpu-prof dist/bench/try-scheduler.js\` with N=5000 BG=1000 M=10000, in process):
per pod the scheduler filters about 500 nodes (the adaptive 10% of 5,000, at least 100) and scores
the feasible ones with nine plugins; the filter and score loops are the largest single items
(NodeResourcesFit's filter, runFilters, runScore, BalancedAllocation and LeastAllocated scores,
together about a quarter of the time), then garbage collection (about 12%), then the API server's
side of each pod (decode, validation, copy-on-read, SQLite transaction of the create, the binding
and the Scheduled event). Two costs found on the way and fixed: the snapshot update walked every
node per cycle (now it copies only the nodes changed since the last cycle), and the event
recorder's cache eviction scanned its whole cache once it held 4,096 entries (now it drops from
the oldest end). In process everything shares one core, so the API server's half of the work comes
out of the scheduler's. Over HTTPS the API server has the other core, but the bench process still
runs the load generator (64 creates in flight), the measuring watch and the scheduler on one
thread, and each pod costs the API server three writes (create, binding, Scheduled event) and two
watch deliveries. Both stay below the targets (1,000 and 900 pods/s) on this 2-core machine; the
next steps are fewer allocations per node in the filter and score loops (scores in typed arrays
instead of an object per node and plugin) and moving the explanation's grouping out of the cycle.

Figures move with the machine's load: on 2026-11-25 the same code that gave 705 pods/s the day
before gave 594-647 (\`try-scheduler.js\`, three runs). Changes of that day, compared in the same
hour with the same command: NodeAffinity skips its filter for a pod without node constraints,
NodeUnschedulable reads a flag kept on the node's info instead of the node object, ImageLocality
normalises a pod's image names once instead of per node, the explanation picks its 50 best nodes
by a packed numeric sort, and in-process responses and watch events are parsed from each object's
shared JSON instead of deep-cloned per receiver: SchedulingBasic in process 594-647 -> 707-724
pods/s; the anti-affinity variant 178 -> 217-224 pods/s (the commit before, rebuilt in a worktree).
What remains is mostly the first touch of each node's objects per pod (cache misses spread over
whichever filter reads a node first) and the API server's three writes per pod.`;
