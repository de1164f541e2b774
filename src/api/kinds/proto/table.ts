/**
 * The Protobuf field numbers of built-in kinds: one table per wire package, each message a map from
 * field name to `"<number> <type>"`. The numbers and wire layout are those of the established
 * system, so its clients interoperate. The `.proto` files in proto/ are generated from these tables
 * (`npm run gen:proto`) and the server builds its protobufjs types from them at start.
 *
 * Types: `string int32 int64 bool double bytes`, a message name (`Time`, `ObjectMeta`, `PodSpec` ...,
 * names are unique across packages), `repeated X`, `map<string,X>`. A trailing `inline` marks a
 * message whose fields sit in the parent's JSON object (the established embedded structs).
 */
export interface ProtoMessageTable {
  /** JSON field name -> `"<number> <type>[ inline]"`. */
  fields: Readonly<Record<string, string>>;
  /**
   * Fields our (shared) schema models for this place but the established message does not carry; an
   * object holding a value there cannot be encoded (the request gets a 406, never a lossy body).
   */
  notOnWire?: readonly string[];
  /**
   * String fields that are pointers in the established types, where "" is a value (a released
   * lease's holderIdentity). Every other string field reads "" as absent, as the established
   * clients write every non-pointer string whether set or not.
   */
  emptyIsValue?: readonly string[];
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
