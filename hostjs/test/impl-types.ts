// The implementation against its declarations (tsconfig.impl.json): what
// each entry point exports, typed from its JSDoc, must be assignable to what
// index.d.ts declares, so that JSDoc and declarations cannot drift apart.
// Core is compared by its instances (the declaration hides the constructor:
// load() makes a Core). Not compared: RAW (a unique symbol is only ever
// assignable to its own declaration) and the error classes, whose `name`
// literal lives on the prototype, where JSDoc cannot type it.
import * as node from '../node.js';
import * as browser from '../browser.js';

type Api = typeof import('../index.js');
type Compared = Pick<Api, 'load' | 'ABI_VERSION' | 'answerText' | 'errorText' | 'Codes' | 'UserInteraction' | 'askUserQuestionTool'>;

export const nodeEntry: Compared = node;
export const browserEntry: Compared = browser;
export const core = (c: InstanceType<typeof node.Core>): import('../index.js').Core => c;
