import { tool } from '@langchain/core/tools';
import { emailAgent } from '@tracewarden/testing';
import { z } from 'zod';

/** Emails actually sent: the demo fails if anything lands here. */
export const sentEmails: { to: string; subject: string; body: string }[] = [];

/** Reads the inbox (untrusted content: the third email is a prompt injection). */
export const getInbox = tool(async () => emailAgent.inbox, {
  name: 'get_inbox',
  description: "Returns the user's inbox: a list of emails with sender, subject and body.",
  schema: z.object({}),
});

/**
 * Sends an email. It really "sends" (records) it, so the demo can prove that the policy
 * stopped the call before it ran.
 */
export const sendEmail = tool(
  async ({ to, subject, body }: { to: string; subject: string; body: string }) => {
    sentEmails.push({ to, subject, body });
    return { sent: true, to };
  },
  {
    name: 'send_email',
    description: 'Sends an email on behalf of the user.',
    schema: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
  },
);
