import engine from "./engine.cjs";

export const { createEngine, Engine, HookwiseError } = engine;
