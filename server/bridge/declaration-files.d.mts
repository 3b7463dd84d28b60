// Types for declaration-files.mjs (plain JS so worker threads load it as is).

/** A catalog's declaration files in shared memory: a leg message carries it without copying the texts. */
export interface DeclarationFiles {
  readonly buffer: SharedArrayBuffer;
}

export interface DeclarationFilesReader {
  list(prefix: string): string[];
  read(path: string): string | undefined;
}

export declare function packDeclarationFiles(files: Iterable<readonly [string, string]>): DeclarationFiles;
export declare const NO_DECLARATION_FILES: DeclarationFiles;
export declare function declarationFilesReader(pack: DeclarationFiles | undefined): DeclarationFilesReader;
