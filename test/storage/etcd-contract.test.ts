/** The storage contract against a real etcd (FAILS if /usr/bin/etcd is missing). */
import { startEtcd, type RunningEtcd } from '../helpers/etcd.js';
import { openEtcdStore } from '../../src/storage/etcd.js';
import { runStorageContract } from './contract.js';

let etcd: RunningEtcd | undefined;
runStorageContract(
  'etcd3',
  async () => {
    etcd ??= await startEtcd();
    return openEtcdStore({ endpoints: [etcd.endpoint] });
  },
  async (s) => s.close(),
);
