/**
 * An object of one served type as an equivalent type has it (webhooks and policies with
 * matchPolicy Equivalent see the object in the version they matched). Kinds served in two groups
 * convert synchronously through their shared stored form; a CRD converted by webhook asks its
 * conversion webhook directly for the target version, as kube's NewVersionedAttributes does
 * through the custom resource converter. A conversion that fails throws the webhook's error
 * (an ApiError whose message is kube's converter text); each caller words it as kube does.
 */
import type { KubeObject, ResourceType } from '../api/types.ts';

export async function convertEquivalent(obj: KubeObject, from: ResourceType | undefined, to: ResourceType): Promise<KubeObject> {
  const conv = to.asyncConversion;
  if (conv) return (await conv.fromStorage([obj]))[0]!;
  // The converters may reuse parts of their input: the request's object stays untouched.
  const stored = from?.storageConversion ? from.storageConversion.toStorage(structuredClone(obj)) : obj;
  return to.storageConversion ? to.storageConversion.fromStorage(stored === obj ? structuredClone(obj) : stored) : stored;
}
