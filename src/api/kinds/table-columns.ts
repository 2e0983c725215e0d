/** Column definitions shared by the printers of several kinds (Name, Age, Created At). */
import type { KubeObject, TableColumn } from '../types.ts';
import { timestampSince } from './human-duration.ts';

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATION_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** The `Name` column (format `name`), shown by default unless `priority` says otherwise. */
export function nameColumn(priority = 0): TableColumn {
  return { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority, cell: (obj) => obj.metadata?.name ?? '' };
}

/** The `Age` column: time since creation, rendered like kubectl. */
export const ageColumn: TableColumn = {
  name: 'Age',
  type: 'string',
  description: CREATION_DESCRIPTION,
  priority: 0,
  cell: (obj: KubeObject, now: Date) => timestampSince(obj.metadata?.creationTimestamp, now),
};

/** The `Created At` column of the default table: the creation time in RFC 3339, UTC. */
export const createdAtColumn: TableColumn = {
  name: 'Created At',
  type: 'date',
  description: CREATION_DESCRIPTION,
  priority: 0,
  cell: (obj: KubeObject) => {
    const ts = obj.metadata?.creationTimestamp;
    if (typeof ts !== 'string' || Number.isNaN(Date.parse(ts))) return null;
    return new Date(ts).toISOString().replace(/\.\d{3}Z$/, 'Z');
  },
};

/** A simple string column. */
export function stringColumn(name: string, description: string, cell: (obj: KubeObject, now: Date) => unknown, priority = 0): TableColumn {
  return { name, type: 'string', description, priority, cell };
}
