import { createJsonlFileSink, createTracer } from '@tracewarden/core';
const sink = createJsonlFileSink('/proc/nonexistent/dir/trace.jsonl');
const tracer = createTracer({ sinks: [sink] });
tracer.logMessage({ role: 'user', content: 'hi' });
setTimeout(() => { console.log('flush STILL PENDING after 3 s'); process.exit(2); }, 3000);
try { await tracer.flush(); console.log('flush resolved'); } catch (e: any) { console.log('flush rejected:', e?.name, e?.message?.slice(0, 200)); }
process.exit(0);
