// The page of the browser test: an app's frontend on the official SDK (supertokens-web-js), bundled with esbuild
// when the test starts. It exposes the flows on `window.flows` for the test to run; the SDK's fetch interceptor
// adds the session headers and refreshes on its own, as in any app.
import SuperTokens from 'supertokens-web-js';
import Session from 'supertokens-web-js/recipe/session/index.js';
import EmailPassword from 'supertokens-web-js/recipe/emailpassword/index.js';

SuperTokens.init({
  appInfo: { appName: 'identity-core browser test', apiDomain: window.location.origin, apiBasePath: '/auth' },
  recipeList: [Session.init({ tokenTransferMethod: 'cookie' }), EmailPassword.init()],
});

export interface ApiAnswer {
  status: number;
  body: unknown;
}

const flows = {
  async signIn(email: string, password: string): Promise<{ status: string; userId?: string }> {
    const result = await EmailPassword.signIn({
      formFields: [
        { id: 'email', value: email },
        { id: 'password', value: password },
      ],
    });
    return result.status === 'OK' ? { status: result.status, userId: result.user.id } : { status: result.status };
  },
  async me(): Promise<ApiAnswer> {
    const response = await fetch('/api/me');
    return { status: response.status, body: await response.json() };
  },
  doesSessionExist: () => Session.doesSessionExist(),
  getUserId: () => Session.getUserId(),
  getAccessTokenPayload: () => Session.getAccessTokenPayloadSecurely(),
  signOut: () => Session.signOut(),
};

(window as unknown as { flows: typeof flows }).flows = flows;
document.body.dataset.ready = 'true';
