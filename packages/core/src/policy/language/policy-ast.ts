/** @internal Position of a node in the policy text (1-based). */
export interface Position {
  line: number;
  column: number;
}

/** @internal Comparison operators, including the flow operators. */
export type CompareOperator =
  | '=='
  | '!='
  | '<'
  | '>'
  | '<='
  | '>='
  | 'in'
  | 'not in'
  | 'is'
  | 'is not'
  | '->'
  | '~>'
  | 'contains_only';

/** @internal A value pattern inside `tool:name({...})`. */
export type PatternValue =
  | ({ kind: 'regex'; source: string } & Position)
  | ({ kind: 'value'; value: string | number | boolean | null } & Position)
  | ({ kind: 'dict'; entries: { key: string; value: PatternValue }[] } & Position)
  | ({ kind: 'list'; items: PatternValue[] } & Position)
  | ({ kind: 'wildcard' } & Position)
  | ({ kind: 'placeholder'; entity: string } & Position);

/** @internal `tool:name` or `tool:name({...})`. */
export interface ToolPattern extends Position {
  /** Full-match regular expression source of the tool name. */
  name: string;
  /** The name is a plain identifier (usable as an index key). */
  plainName: boolean;
  arguments: PatternValue | undefined;
}

/** @internal */
export type Expr =
  | ({ kind: 'literal'; value: string | number | boolean | null; raw?: boolean } & Position)
  | ({ kind: 'name'; name: string } & Position)
  | ({ kind: 'declaration'; name: string; type: string; typePosition: Position } & Position)
  | ({ kind: 'list'; items: Expr[] } & Position)
  | ({ kind: 'dict'; entries: { key: Expr; value: Expr }[] } & Position)
  | ({
      kind: 'comprehension';
      element: Expr;
      variable: string;
      variablePosition: Position;
      iterable: Expr;
      condition: Expr | undefined;
    } & Position)
  | ({ kind: 'unary'; operator: 'not' | '-' | '+'; operand: Expr } & Position)
  | ({
      kind: 'binary';
      operator: '+' | '-' | '*' | '/' | '//' | '%' | '**';
      left: Expr;
      right: Expr;
    } & Position)
  | ({ kind: 'logical'; operator: 'and' | 'or'; left: Expr; right: Expr } & Position)
  | ({ kind: 'conditional'; condition: Expr; whenTrue: Expr; otherwise: Expr } & Position)
  | ({
      kind: 'compare';
      operators: CompareOperator[];
      operands: Expr[];
      operatorPositions: Position[];
    } & Position)
  | ({ kind: 'pattern'; subject: Expr; pattern: ToolPattern; negated: boolean } & Position)
  | ({ kind: 'member'; object: Expr; name: string } & Position)
  | ({ kind: 'index'; object: Expr; index: Expr } & Position)
  | ({
      kind: 'call';
      callee: Expr;
      args: Expr[];
      namedArgs: { name: string; value: Expr }[];
    } & Position);

/** @internal A line of a rule or predicate body. */
export type Statement =
  | ({ kind: 'condition'; expr: Expr } & Position)
  | ({ kind: 'binding'; name: string; expr: Expr } & Position)
  | ({
      kind: 'quantifier';
      quantifier: 'forall' | 'exists' | 'count';
      min: Expr | undefined;
      max: Expr | undefined;
      negated: boolean;
      body: Statement[];
    } & Position);

/** @internal A parameter of a predicate, with an optional type annotation. */
export interface Parameter extends Position {
  name: string;
  type: string | undefined;
}

/** @internal */
export type TopLevel =
  | ({
      kind: 'rule';
      message: string;
      args: Expr[];
      namedArgs: { name: string; value: Expr }[];
      body: Statement[];
      action: { value: string; position: Position } | undefined;
      name: string | undefined;
    } & Position)
  | ({ kind: 'predicate'; name: string; params: Parameter[]; body: Statement[] } & Position)
  | ({ kind: 'binding'; name: string; expr: Expr } & Position)
  | ({
      kind: 'import';
      /** `from module import names` or `import module` (names empty). */
      module: string;
      names: { name: string; at: Position }[];
    } & Position);

/** @internal The parsed policy. */
export interface PolicyAst {
  items: TopLevel[];
}
