import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { findSources, repositoryRoot } from './collect-snippets.js';

/** An error class of a package and the codes its instances can carry. */
export interface ErrorClassCodes {
  /** The class name, e.g. `RateLimitedError`. */
  name: string;
  /** The package folder under `packages/`, e.g. `core`. */
  packageName: string;
  /** Every code, sorted. */
  codes: string[];
}

interface ClassFacts {
  name: string;
  packageName: string;
  base: string | undefined;
  /** The type of the class's `code` declaration (a literal union or a type alias of one). */
  declared: ts.TypeNode | undefined;
  /** Codes passed as the first argument of `super(...)`. */
  passed: string[];
}

function literals(node: ts.TypeNode, aliases: Map<string, ts.TypeNode>): string[] | undefined {
  if (ts.isLiteralTypeNode(node) && ts.isStringLiteral(node.literal)) return [node.literal.text];
  if (ts.isUnionTypeNode(node)) {
    const all = node.types.map((type) => literals(type, aliases));
    return all.every((codes) => codes !== undefined) ? all.flat() : undefined;
  }
  if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName)) {
    const alias = aliases.get(node.typeName.text);
    return alias === undefined ? undefined : literals(alias, aliases);
  }
  return undefined;
}

/**
 * Every error class in the packages' sources that derives from `TracewardenError`, with the codes
 * it can carry: read from its `code` declaration (`declare readonly code: GuardErrorCode`), else
 * from the literal it passes to `super(...)`, else from its base class; `new
 * TracewardenError('CODE', ...)` anywhere adds `CODE` to `TracewardenError` itself. Read from the
 * syntax alone (no type checker), so it takes a second, not a compile.
 */
export function collectErrorClasses(): ErrorClassCodes[] {
  const aliases = new Map<string, ts.TypeNode>();
  const classes = new Map<string, ClassFacts>();
  const direct = new Set<string>();
  for (const file of findSources()) {
    const packageName = file.split('/')[1] ?? '';
    const source = ts.createSourceFile(
      file,
      readFileSync(join(repositoryRoot, file), 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const visit = (node: ts.Node): void => {
      if (ts.isTypeAliasDeclaration(node)) aliases.set(node.name.text, node.type);
      if (ts.isClassDeclaration(node) && node.name !== undefined) {
        const heritage = node.heritageClauses?.find(
          (clause) => clause.token === ts.SyntaxKind.ExtendsKeyword,
        );
        const baseExpression = heritage?.types[0]?.expression;
        const facts: ClassFacts = {
          name: node.name.text,
          packageName,
          base:
            baseExpression !== undefined && ts.isIdentifier(baseExpression)
              ? baseExpression.text
              : undefined,
          declared: undefined,
          passed: [],
        };
        for (const member of node.members) {
          if (
            ts.isPropertyDeclaration(member) &&
            ts.isIdentifier(member.name) &&
            member.name.text === 'code' &&
            member.type !== undefined
          )
            facts.declared = member.type;
        }
        const findSuper = (inner: ts.Node): void => {
          if (
            ts.isCallExpression(inner) &&
            inner.expression.kind === ts.SyntaxKind.SuperKeyword &&
            inner.arguments[0] !== undefined &&
            ts.isStringLiteral(inner.arguments[0])
          )
            facts.passed.push(inner.arguments[0].text);
          ts.forEachChild(inner, findSuper);
        };
        ts.forEachChild(node, findSuper);
        classes.set(facts.name, facts);
      }
      if (
        ts.isNewExpression(node) &&
        ts.isIdentifier(node.expression) &&
        node.expression.text === 'TracewardenError' &&
        node.arguments?.[0] !== undefined &&
        ts.isStringLiteral(node.arguments[0])
      )
        direct.add(node.arguments[0].text);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  const derives = (name: string, seen = new Set<string>()): boolean => {
    if (name === 'TracewardenError') return true;
    const base = classes.get(name)?.base;
    if (base === undefined || seen.has(name)) return false;
    seen.add(name);
    return derives(base, seen);
  };
  const codesOf = (facts: ClassFacts): string[] => {
    // aliases are resolved now that every file has been read (a union may live in another file)
    const declared = facts.declared === undefined ? undefined : literals(facts.declared, aliases);
    if (declared !== undefined) return declared;
    if (facts.passed.length > 0) return facts.passed;
    const base = facts.base === undefined ? undefined : classes.get(facts.base);
    return base === undefined ? [] : codesOf(base);
  };
  const result: ErrorClassCodes[] = [];
  for (const facts of classes.values()) {
    if (!derives(facts.name)) continue;
    const codes = facts.name === 'TracewardenError' ? [...direct] : codesOf(facts);
    result.push({
      name: facts.name,
      packageName: facts.packageName,
      codes: [...new Set(codes)].sort(),
    });
  }
  return result.sort((a, b) => a.name.localeCompare(b.name));
}
