// Types for the sucrase parser's ESM files, which sucrase ships without declarations beside them (its own are under dist/types).
declare module 'sucrase/dist/esm/parser/index.js' {
  export { parse } from 'sucrase/dist/types/parser/index';
}
declare module 'sucrase/dist/esm/parser/tokenizer/types.js' {
  export { TokenType } from 'sucrase/dist/types/parser/tokenizer/types';
}
declare module 'sucrase/dist/esm/parser/tokenizer/keywords.js' {
  export { ContextualKeyword } from 'sucrase/dist/types/parser/tokenizer/keywords';
}
