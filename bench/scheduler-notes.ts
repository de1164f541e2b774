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
out of the scheduler's; over HTTPS the scheduler has a core of its own.`;
