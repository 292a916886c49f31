import { AIMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';

/** Calls of the tool bodies, so tests can prove a body never ran. */
export const ran: string[] = [];

export const weather = tool(
  async ({ city }: { city: string }) => {
    ran.push(`weather:${city}`);
    return `Sunny in ${city}`;
  },
  {
    name: 'weather',
    description: 'Get the weather of a city',
    schema: z.object({ city: z.string() }),
  },
);

export const explode = tool(
  async () => {
    ran.push('explode');
    throw new Error('tool exploded');
  },
  { name: 'explode', description: 'Always fails', schema: z.object({}) },
);

export const sendEmail = tool(
  async ({ to }: { to: string; body: string }) => {
    ran.push(`send_email:${to}`);
    return { sent: true, to };
  },
  {
    name: 'send_email',
    description: 'Send an email',
    schema: z.object({ to: z.string(), body: z.string() }),
  },
);

/**
 * An `AIMessage` from loose fields: LangChain's field types fight `exactOptionalPropertyTypes`
 * (their `usage_metadata` resolves to `undefined` under it).
 */
export function aiMessage(fields: Record<string, unknown>): AIMessage {
  return new AIMessage(fields as never);
}
