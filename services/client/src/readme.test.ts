/** The README's examples type-check against the client as it is built now (the e2e suite runs them). */
import { join } from 'node:path';
import ts from 'typescript';
import { readmeBlocks, readmeScript } from './readme-examples.fixtures';

it('when the README examples are compiled with the strict settings of the repository, then there is no error', () => {
  expect(readmeBlocks().length).toBeGreaterThanOrEqual(4);
  const file = join(__dirname, 'readme-examples.check.ts');
  const source = readmeScript('./index');
  const { config } = ts.readConfigFile(join(__dirname, '..', '..', '..', 'tsconfig.base.json'), ts.sys.readFile);
  const { options } = ts.convertCompilerOptionsFromJson({ ...config.compilerOptions, composite: false, incremental: false, declaration: false, declarationMap: false, noEmit: true }, __dirname);
  const host = ts.createCompilerHost(options);
  const readSource = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => (name === file ? ts.createSourceFile(name, source, language) : readSource(name, language, ...rest));
  host.fileExists = ((exists) => (name: string) => name === file || exists(name))(host.fileExists.bind(host));
  const program = ts.createProgram([file], options, host);
  const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  expect(problems).toEqual([]);
});
