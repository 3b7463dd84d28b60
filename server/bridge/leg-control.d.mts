// Types for leg-control.mjs (plain JS so worker threads load it as is).
export declare const CONTROL_DEADLINE: 0;
export declare const CONTROL_ABORT: 1;
export declare const CONTROL_BUDGET: 2;
export declare const CONTROL_OVER_MEMORY: 3;
export declare const CONTROL_SLOTS: 4;
export declare const RUN_ABORTED_MESSAGE: 'code mode run was aborted';
