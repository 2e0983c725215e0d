/**
 * Go's `%#v` of the few apiextensions values kube-apiserver prints whole inside CRD validation
 * errors (the versions list, a validation rule). Pointers print as addresses in Go; we print a
 * fixed one, since clients cannot rely on an address anyway.
 */
import { goQuote } from '../schema/prune.ts';

const POINTER = '0xc000000000';

function ptr(type: string, present: boolean): string {
  return `(*${type})(${present ? POINTER : 'nil'})`;
}

function str(v: unknown): string {
  return goQuote(typeof v === 'string' ? v : '');
}

/** `apiextensions.ValidationRule{Rule:"...", ...}`. */
export function goValidationRule(rule: Record<string, unknown>): string {
  return (
    `apiextensions.ValidationRule{Rule:${str(rule.rule)}, Message:${str(rule.message)}, MessageExpression:${str(rule.messageExpression)}, ` +
    `Reason:${ptr('apiextensions.FieldValueErrorReason', rule.reason !== undefined)}, FieldPath:${str(rule.fieldPath)}, OptionalOldSelf:${ptr('bool', rule.optionalOldSelf !== undefined)}}`
  );
}

/**
 * The internal versions list. `hoisted` says the schema, subresources, columns and selectable
 * fields moved to the spec (identical in every version), leaving the versions' own nil.
 */
export function goVersions(versions: readonly Record<string, unknown>[], hoisted: boolean): string {
  const one = (v: Record<string, unknown>) => {
    const cols = Array.isArray(v.additionalPrinterColumns) && !hoisted ? `[]apiextensions.CustomResourceColumnDefinition{/* ${v.additionalPrinterColumns.length} */}` : '[]apiextensions.CustomResourceColumnDefinition(nil)';
    const sel = Array.isArray(v.selectableFields) && !hoisted ? `[]apiextensions.SelectableField{/* ${v.selectableFields.length} */}` : '[]apiextensions.SelectableField(nil)';
    return (
      `apiextensions.CustomResourceDefinitionVersion{Name:${str(v.name)}, Served:${v.served === true}, Storage:${v.storage === true}, Deprecated:${v.deprecated === true}, ` +
      `DeprecationWarning:${ptr('string', typeof v.deprecationWarning === 'string')}, Schema:${ptr('apiextensions.CustomResourceValidation', !hoisted && v.schema != null)}, ` +
      `Subresources:${ptr('apiextensions.CustomResourceSubresources', !hoisted && v.subresources != null)}, AdditionalPrinterColumns:${cols}, SelectableFields:${sel}}`
    );
  };
  return `[]apiextensions.CustomResourceDefinitionVersion{${versions.map(one).join(', ')}}`;
}

/** `[]string{"v1"}` or `[]string(nil)`. */
export function goStrings(values: readonly string[] | undefined): string {
  if (!values || values.length === 0) return values ? '[]string{}' : '[]string(nil)';
  return `[]string{${values.map(goQuote).join(', ')}}`;
}
