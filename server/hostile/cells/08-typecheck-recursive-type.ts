// attack: a small recursive type that makes the TypeScript checker work for seconds
// finding: 9.7 (typecheck ran on the Gateway's event loop with no time limit)
// expect: {"status":["completed","failed"],"notCode":["internal_error"]}
// options: {"typecheck":true}
type Digits = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
type Str<N extends number, A extends string[] = []> = A['length'] extends N ? A : Str<N, [...A, `${Digits}${Digits}`]>;
type Join<T extends string[]> = T extends [infer H extends string, ...infer R extends string[]] ? `${H}${Join<R>}` : '';
const x: Join<Str<8>> = '0000000000000000';
return x.length;
