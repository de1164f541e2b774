import { chartModel, toMermaid } from '/work/h4/dist/src/runtime/inspection/index.js';
import { mirrorController } from '/work/h4/dist/docs/examples/mirror-controller.js';
import { workerMachine } from '/work/h4/dist/machines/index.js';
console.log(toMermaid(chartModel(mirrorController.machine, 'controller')));
console.log(toMermaid(chartModel(workerMachine, 'worker')));
