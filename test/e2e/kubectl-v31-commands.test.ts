// kubectl 1.31 (JSON request bodies, the version many machines have) drives `svc up` unmodified:
// the same commands as the newest one (./kubectl-commands.ts).
import { KUBECTL } from '../helpers/kubectl.js';
import { runKubectlCommands } from './kubectl-commands.js';

runKubectlCommands(KUBECTL, '1.31');
