/** Audit event lines made comparable between servers. */

/** Values that differ between any two servers: IDs, clocks, generated names, the credential. */
export function normalize(line: string): string {
  const e = JSON.parse(line) as Record<string, any>;
  e.auditID = 'ID';
  e.requestReceivedTimestamp = 'T';
  e.stageTimestamp = 'T';
  e.user = 'USER';
  const scrub = (o: any) => {
    if (!o || typeof o !== 'object') return;
    if (o.metadata) {
      for (const k of ['uid', 'resourceVersion', 'creationTimestamp']) if (typeof o.metadata[k] === 'string') o.metadata[k] = k;
      for (const m of o.metadata.managedFields ?? []) m.time = 'T';
    }
  };
  scrub(e.requestObject);
  scrub(e.responseObject);
  if (e.responseStatus?.details?.uid) e.responseStatus.details.uid = 'uid';
  return JSON.stringify(e);
}
