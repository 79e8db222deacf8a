// The page of the passkey browser test: an app's frontend on the official SDK's WebAuthn recipe
// (supertokens-web-js), which calls the browser's navigator.credentials through @simplewebauthn/browser. It exposes
// the flows on `window.flows` for the test to run.
import SuperTokens from 'supertokens-web-js';
import Session from 'supertokens-web-js/recipe/session/index.js';
import WebAuthn from 'supertokens-web-js/recipe/webauthn/index.js';

SuperTokens.init({
  appInfo: { appName: 'identity-core passkey test', apiDomain: window.location.origin, apiBasePath: '/auth' },
  recipeList: [Session.init({ tokenTransferMethod: 'cookie' }), WebAuthn.init()],
});

export interface PasskeyAnswer {
  status: string;
  userId?: string;
  /** The browser's error name when navigator.credentials refused (NotAllowedError, …). */
  error?: string;
}

function answerOf(result: { status: string; user?: { id: string }; error?: unknown }): PasskeyAnswer {
  if (result.status === 'OK') return { status: 'OK', userId: result.user!.id };
  const error = result.error instanceof Error ? result.error.name : undefined;
  return error === undefined ? { status: result.status } : { status: result.status, error };
}

const flows = {
  async signUp(email: string): Promise<PasskeyAnswer> {
    return answerOf(await WebAuthn.registerCredentialWithSignUp({ email, userContext: {} }));
  },
  async signIn(): Promise<PasskeyAnswer> {
    return answerOf(await WebAuthn.authenticateCredentialWithSignIn({ userContext: {} }));
  },
  async me(): Promise<{ status: number; body: unknown }> {
    const response = await fetch('/api/me');
    return { status: response.status, body: await response.json() };
  },
  doesSessionExist: () => Session.doesSessionExist(),
  signOut: () => Session.signOut(),
};

(window as unknown as { flows: typeof flows }).flows = flows;
document.body.dataset.ready = 'true';
