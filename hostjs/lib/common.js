// What both entry points export besides load().
export { Core, ABI_VERSION, RAW, answerText } from './core.js';
export { Codes, HarnessError, UserInteractionError, HostFaultError, isUserInteractionError, errorText } from './errors.js';
export { UserInteraction, askUserQuestionTool, firstReply } from './interaction.js';
export { WasiExit } from './wasi.js';
