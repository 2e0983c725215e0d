/** Types of bin/build.js, for the tests that call it. */
export declare const root: string;
export declare const buildDir: string;
export declare function buildIsCurrent(): boolean;
export declare function build(): string | undefined;
export declare function ensureBuild(): string | undefined;
