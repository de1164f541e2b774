/** Public API of src/testing: a whole cluster in a test's process. */
export { startTestCluster, type TestCluster, type TestClusterOptions } from './test-cluster.js';
