/** Types of bin/build.js, for the tests and benchmarks that call it. */
export declare const root: string;
export declare const buildDir: string;
export declare function buildIsCurrent(): boolean;
export declare function build(): Promise<string | undefined>;
export declare function ensureBuild(): Promise<string | undefined>;
