/**
 * The Protobuf field numbers of built-in kinds: one table per wire package, each message a map from
 * field name to `"<number> <type>"`. The numbers and wire layout are those of the established
 * system, so its clients interoperate. The `.proto` files in proto/ are generated from these tables
 * (`npm run gen:proto`) and the server builds its protobufjs types from them at start.
 *
 * Types: `string int32 int64 bool double bytes`, a message name (`Time`, `ObjectMeta`, `PodSpec` ...,
 * names are unique across packages), `repeated X`, `map<string,X>`. A trailing `inline` marks a
 * message whose fields sit in the parent's JSON object (the established embedded structs).
 *
 * Presence of scalar fields (`string int32 int64 bool double`), as in the established Go types:
 * - plain (`'1 int32'`): a non-pointer field with `omitempty` (`MinReadySeconds int32`, `Stdin bool`,
 *   most strings). Go clients write it whether set or not, and the established server cannot tell a
 *   zero sent from one not sent (both are the Go zero value, which its JSON omits): `0`, `false` and
 *   `""` read as absent.
 * - `optional` (`'1 optional int32'`): a pointer field (`Replicas *int32`, `Privileged *bool`,
 *   `HolderIdentity *string`), where a zero sent is a value (`replicas: 0`); also a non-pointer field
 *   without `omitempty` (`ReplicaSetStatus.Replicas`, `ContainerPort.ContainerPort`), whose zero the
 *   established JSON always shows. The generated `.proto` (proto3) says the same: `optional` is
 *   explicit presence, a plain field implicit presence.
 * New kinds must mark their pointer fields: an unmarked `replicas: 0` from kubectl would read as
 * absent and be defaulted.
 */
export interface ProtoMessageTable {
  /** JSON field name -> `"<number> [optional |repeated ]<type>[ inline]"`. */
  fields: Readonly<Record<string, string>>;
  /**
   * Fields our (shared) schema models for this place but the established message does not carry; an
   * object holding a value there cannot be encoded (the request gets a 406, never a lossy body).
   */
  notOnWire?: readonly string[];
  /** The JSON form is the bare list held in the message's only field `items` (established list wrappers). */
  wrapsList?: boolean;
}

export interface ProtoPackageTable {
  /** Protobuf package, e.g. `svc.api.core.v1`. */
  package: string;
  /** Path under proto/, e.g. `api/core/v1/generated.proto`. */
  file: string;
  messages: Readonly<Record<string, ProtoMessageTable>>;
  /** The apiVersion (`v1`, `apps/v1`) of the kinds below. */
  groupVersion?: string;
  /** API kind -> its message, for the kinds this package serves. */
  kinds?: Readonly<Record<string, string>>;
}
