/**
 * The app's outgoing mail and text messages. The SDK's delivery services are overridden (its documented
 * `emailDelivery.override` / `smsDelivery.override`) to put each message here instead of sending it, so a test reads
 * the code, link or token a user would have received.
 */
export interface OutboxMessage {
  channel: 'email' | 'sms';
  /** The email address or phone number it was sent to. */
  to: string;
  /** The SDK's delivery input type: PASSWORDLESS_LOGIN, PASSWORD_RESET, EMAIL_VERIFICATION. */
  type: string;
  /** The link the message carries (magic link, reset or verification link), if any. */
  link?: string;
  /** The code a user would type (passwordless), if any. */
  code?: string;
}

export class Outbox {
  readonly messages: OutboxMessage[] = [];

  push(message: OutboxMessage): void {
    this.messages.push(message);
  }

  /** The last message sent to `to` (and of `type` if given); fails the test when there is none. */
  last(to: string, type?: string): OutboxMessage {
    const found = this.messages.filter((message) => message.to === to && (type === undefined || message.type === type)).at(-1);
    if (!found) throw new Error(`no ${type ?? ''} message was sent to ${to}`);
    return found;
  }

  /** The value of `param` in the last link sent to `to`. */
  linkParam(to: string, type: string, param: string): string {
    const { link } = this.last(to, type);
    const value = link === undefined ? null : new URL(link).searchParams.get(param);
    if (value === null) throw new Error(`the last ${type} message to ${to} has no '${param}' in its link`);
    return value;
  }

  /** The fragment of the last link sent to `to` (the magic link carries its link code there). */
  linkFragment(to: string, type: string): string {
    const { link } = this.last(to, type);
    return link === undefined ? '' : new URL(link).hash.slice(1);
  }
}
