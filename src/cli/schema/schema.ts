import { Command } from 'commander';
import { writeOutput } from '../common/common.js';

export function schemaCommand(): Command {
  return new Command('schema')
    .description('Print the InfluxDB schema (every measurement: tags, fields, types, units, source API) as markdown')
    .option('--json', 'print JSON instead of markdown')
    .option('--write <file>', 'write to a file instead of stdout (e.g. docs/schema.md)')
    .action(async (o: { json?: boolean; write?: string }) => {
      // The measurement schemas load when the command runs, not for `schema --help`.
      const [{ SCHEMA }, { renderSchemaDocument, renderSchemaJson }] = await Promise.all([
        import('../../schema/schema.js'),
        import('../../schema/schema-doc.js'),
      ]);
      const text = o.json ? renderSchemaJson(SCHEMA) : renderSchemaDocument(SCHEMA);
      if (o.write) await writeOutput(o.write, text);
      else process.stdout.write(text);
    });
}
