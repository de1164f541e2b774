// kubectl 1.28 (it reads /openapi/v2 in Protobuf for apply, explain and validation, where newer
// ones read /openapi/v3) drives `svc up` unmodified: the same commands (./kubectl-commands.ts).
import { KUBECTL_V28 } from '../helpers/kubectl.js';
import { runKubectlCommands } from './kubectl-commands.js';

runKubectlCommands(KUBECTL_V28, '1.28');
