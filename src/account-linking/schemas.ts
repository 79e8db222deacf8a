import { Type, type Static } from '@sinclair/typebox';
import { UserSchema } from '../http/schemas.js';

export const RecipeUserIdQuery = Type.Object({ recipeUserId: Type.String() });
export type RecipeUserIdQuery = Static<typeof RecipeUserIdQuery>;
export const LinkQuery = Type.Object({ recipeUserId: Type.String(), primaryUserId: Type.String() });
export type LinkQuery = Static<typeof LinkQuery>;
export const RecipeUserIdBody = RecipeUserIdQuery;
export const LinkBody = LinkQuery;

const withId = (status: string) => Type.Object({ status: Type.Literal(status), primaryUserId: Type.String(), description: Type.String() });
const AccountInfoConflict = withId('ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR');
const LinkedElsewhere = withId('RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR');
const LinkedToAnother = withId('RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR');
const NotPrimary = Type.Object({ status: Type.Literal('INPUT_USER_IS_NOT_A_PRIMARY_USER') });

export const CanCreatePrimaryResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), wasAlreadyAPrimaryUser: Type.Boolean() }),
  LinkedElsewhere,
  AccountInfoConflict,
]);
export const CreatePrimaryResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), wasAlreadyAPrimaryUser: Type.Boolean(), user: UserSchema }),
  LinkedElsewhere,
  AccountInfoConflict,
]);
export const CanLinkResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), accountsAlreadyLinked: Type.Boolean() }),
  NotPrimary,
  LinkedToAnother,
  AccountInfoConflict,
]);
export const LinkResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), accountsAlreadyLinked: Type.Boolean(), user: UserSchema }),
  NotPrimary,
  Type.Intersect([LinkedToAnother, Type.Object({ user: UserSchema })]),
  AccountInfoConflict,
]);
export const UnlinkResponse = Type.Object({
  status: Type.Literal('OK'),
  wasRecipeUserDeleted: Type.Boolean(),
  wasLinked: Type.Boolean(),
});
