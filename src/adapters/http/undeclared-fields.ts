/**
 * The fields a value of type `Answer` has, at any depth, that `Declared` does not declare, as
 * dotted paths (`tools.annotations.extra`); `never` when there are none. Assignability alone
 * lets an answer carry fields its declaration lacks; this names them, so a field added to a
 * view and forgotten in src/api fails the compile. An index signature (`[field: string]`)
 * declares every field, and `unknown` anything below it.
 */
export type UndeclaredFields<Answer, Declared> = unknown extends Declared
  ? never
  : Answer extends readonly (infer Item)[]
    ? Declared extends readonly (infer DeclaredItem)[]
      ? UndeclaredFields<Item, DeclaredItem>
      : never
    : Answer extends object
      ? UndeclaredIn<Answer, Matching<Answer, NonNullable<Declared>>>
      : never;

/** The members of the declared union that the answer is one of (one, for a tagged union such as the live events). */
type Matching<Answer, Declared> = Declared extends unknown ? (Answer extends Declared ? Declared : never) : never;

type UndeclaredIn<Answer, Declared> = [Declared] extends [never]
  ? never
  : string extends keyof Declared
    ? never
    : { [K in keyof Answer & string]: K extends keyof Declared ? Below<K, UndeclaredFields<Answer[K], Declared[K]>> : K }[keyof Answer & string];

type Below<K extends string, Fields> = Fields extends string ? `${K}.${Fields}` : never;

/**
 * What a parameter typed `Answer & OnlyDeclared<Answer, Declared>` adds: nothing when `Answer`
 * has only declared fields, else a property per undeclared field, which the answer lacks, so
 * the compiler's error names it ("undeclared in src/api: tools.annotations.extra").
 */
export type OnlyDeclared<Answer, Declared> = Named<UndeclaredFields<Answer, Declared>>;

type Named<Fields> = [Fields] extends [never] ? unknown : { [Field in Fields & string as `undeclared in src/api: ${Field}`]: never };
