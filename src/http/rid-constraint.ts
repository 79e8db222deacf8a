import type { IncomingMessage } from 'node:http';
import type { ConstraintStrategy, Handler, HTTPVersion } from 'find-my-way';

// GET and PUT /recipe/user are served by the recipe named in the `rid` header: exactly `passwordless` or
// `thirdparty` (case-sensitive); anything else, or no header, goes to the email-password route, which is
// declared without this constraint (contract §1.3).
const ridRoutedRecipes = new Set(['passwordless', 'thirdparty']);

export const ridConstraint: ConstraintStrategy<HTTPVersion.V1, string> = {
  name: 'rid',
  storage() {
    const handlers = new Map<string, Handler<HTTPVersion.V1>>();
    return {
      get: (value: string) => handlers.get(value) ?? null,
      set: (value: string, store: Handler<HTTPVersion.V1>) => void handlers.set(value, store),
    };
  },
  deriveConstraint(request: IncomingMessage) {
    const value = request.headers.rid;
    const rid = Array.isArray(value) ? value[0] : value;
    return (rid !== undefined && ridRoutedRecipes.has(rid) ? rid : undefined) as string;
  },
  mustMatchWhenDerived: false,
};
