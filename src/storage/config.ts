/**
 * The storage configuration the API server's flags resolve to (--kvstore-servers, --data-dir, ...):
 * which engine, where, and its housekeeping periods. Lives with storage so the engines need
 * nothing from the API server.
 */
export interface StorageConfig {
  /** Empty: the embedded engine in `dataDir`. Otherwise etcd v3 endpoints (`https://127.0.0.1:2379`). */
  servers: string[];
  /** `group/resource` -> servers (core group written as `/pods`), from --kvstore-servers-overrides. */
  serversOverrides: Record<string, string[]>;
  prefix: string;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** Directory of the embedded engine (this project's --data-dir). */
  dataDir: string;
  /** --data-dir-fsync: the embedded engine fsyncs each commit before acknowledging it; default true. */
  dataDirFsync?: boolean;
  /** 0 disables compaction. */
  compactionIntervalMs: number;
  /** 0 disables object-count polling. */
  countMetricPollPeriodMs: number;
  mediaType: string;
}
