// An Express app on the official backend SDK (supertokens-node), pointed at identity-core: sign-up and sign-in with
// a password, with an emailed or texted code, with a social provider or with a passkey; a protected route; sign-out.
// Run it from the checkout: `node examples/express-app/app.mjs` (PORT, default 3001).
// README:begin
import express from 'express';
import supertokens from 'supertokens-node';
import { errorHandler, middleware } from 'supertokens-node/framework/express/index.js';
import Session from 'supertokens-node/recipe/session/index.js';
import { verifySession } from 'supertokens-node/recipe/session/framework/express/index.js';
import EmailPassword from 'supertokens-node/recipe/emailpassword/index.js';
import EmailVerification from 'supertokens-node/recipe/emailverification/index.js';
import Passwordless from 'supertokens-node/recipe/passwordless/index.js';
import ThirdParty from 'supertokens-node/recipe/thirdparty/index.js';
import UserMetadata from 'supertokens-node/recipe/usermetadata/index.js';
import UserRoles from 'supertokens-node/recipe/userroles/index.js';
import WebAuthn from 'supertokens-node/recipe/webauthn/index.js';
import Dashboard from 'supertokens-node/recipe/dashboard/index.js';
import Multitenancy from 'supertokens-node/recipe/multitenancy/index.js';

const port = Number(process.env.PORT ?? 3001);
const apiDomain = process.env.API_DOMAIN ?? `http://localhost:${port}`;

supertokens.init({
  framework: 'express',
  supertokens: {
    // The core: IDENTITY_CORE_URL as for the migration command (`docker compose up` publishes it on localhost too).
    connectionURI: process.env.IDENTITY_CORE_URL ?? 'http://localhost:3567',
    // One of the keys the core was started with (api_keys, env API_KEYS); unset for a core without keys.
    apiKey: process.env.IDENTITY_CORE_API_KEY,
  },
  appInfo: { appName: 'My app', apiDomain, websiteDomain: process.env.WEBSITE_DOMAIN ?? apiDomain },
  recipeList: [
    EmailPassword.init(),
    EmailVerification.init({ mode: 'OPTIONAL', emailDelivery: { override: printed } }),
    Passwordless.init({
      contactMethod: 'EMAIL_OR_PHONE',
      flowType: 'USER_INPUT_CODE_AND_MAGIC_LINK',
      emailDelivery: { override: printed },
      smsDelivery: { override: printed },
    }),
    ThirdParty.init({ signInAndUpFeature: { providers: [] } }), // add Google, GitHub, … here
    UserMetadata.init(),
    UserRoles.init(),
    // Passkeys: keep the relying-party id the old provider's passkeys were made for (the core's webauthn_rp_ids).
    WebAuthn.init({
      getRelyingPartyId: async () => process.env.WEBAUTHN_RP_ID ?? 'localhost',
      getRelyingPartyName: async () => 'My app',
      getOrigin: async () => process.env.WEBSITE_DOMAIN ?? apiDomain,
      emailDelivery: { override: printed },
    }),
    // The user dashboard at /auth/dashboard, signed in as one of the core's dashboard users (docs/dashboard.md);
    // with DASHBOARD_ADMINS (comma-separated emails) set, only those may change anything.
    Dashboard.init({ admins: process.env.DASHBOARD_ADMINS?.split(',') }),
    Multitenancy.init(), // tenants and organizations: docs/organizations.md
    Session.init(),
  ],
  // The dashboard's analytics call would send the signed-in admin's email to the SDK's vendor: off.
  telemetry: false,
});

const app = express();
app.use(express.json());
// Serves the SDK's routes under /auth: sign-up, sign-in, codes, sign-out, session refresh.
app.use(middleware());

// A signed-out access token still passes verifySession() until it expires (access_token_validity, an hour by
// default), as it is checked against the core's keys alone; checkDatabase: true also asks the core whether the
// session still exists.
app.get('/api/me', verifySession({ checkDatabase: true }), async (req, res) => {
  const userId = req.session.getUserId();
  const { roles } = await UserRoles.getRolesForUser('public', userId);
  const { metadata } = await UserMetadata.getUserMetadata(userId);
  res.json({ userId, roles, metadata });
});

app.use(errorHandler());
// README:end

// Messages go to the console here; a real app keeps the SDK's delivery or sends them with its own mailer and SMS
// provider.
function printed(original) {
  return {
    ...original,
    sendEmail: async (input) => console.log(JSON.stringify({ message: input.type, to: input.email ?? input.user.email, ...codeOf(input) })),
    sendSms: async (input) => console.log(JSON.stringify({ message: input.type, to: input.phoneNumber, ...codeOf(input) })),
  };
}

function codeOf(input) {
  return { code: input.userInputCode, link: input.urlWithLinkCode ?? input.emailVerifyLink ?? input.recoverAccountLink };
}

const server = app.listen(port, () => console.log(`listening at http://localhost:${server.address().port}`));
