import { type Email, inbox } from './inbox.js';

/** Emails actually sent: the demo fails if anything lands here. */
export const sentEmails: { to: string; subject: string; body: string }[] = [];

/**
 * The assistant's tools. `send_email` really "sends" (records) the email, so the demo can prove
 * that the policy stopped it before it ran.
 */
export const tools = {
  get_inbox: (): Email[] => inbox,
  send_email: (args: Record<string, unknown>): { sent: true; to: string } => {
    const email = {
      to: String(args.to),
      subject: String(args.subject ?? ''),
      body: String(args.body ?? ''),
    };
    sentEmails.push(email);
    return { sent: true, to: email.to };
  },
};

/** The tool definitions sent to the model. */
export const toolDefinitions = [
  {
    type: 'function' as const,
    function: {
      name: 'get_inbox',
      description: "Returns the user's inbox: a list of emails with sender, subject and body.",
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'send_email',
      description: 'Sends an email on behalf of the user.',
      parameters: {
        type: 'object',
        properties: {
          to: { type: 'string' },
          subject: { type: 'string' },
          body: { type: 'string' },
        },
        required: ['to', 'subject', 'body'],
        additionalProperties: false,
      },
    },
  },
];
