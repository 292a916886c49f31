import { guardTools } from '@tracewarden/ai-sdk';
import { tool } from 'ai';
import { z } from 'zod';
// options for a tool without execute: runtime throws INVALID_OPTIONS; does the type checker catch it?
guardTools({ ask_user: tool({ inputSchema: z.object({ q: z.string() }) }) }, { tools: { ask_user: { sideEffect: 'write' } } });
