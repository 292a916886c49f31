import { companyDomain } from './inbox.js';

/**
 * The guardrail, in Invariant's rule language: content from an untrusted tool (the inbox) must
 * not flow into an email to an address outside the company domain.
 */
export const policyText = `
# name: no-exfiltration
raise "untrusted inbox content followed by send_email to an outside address" if:
    (output: ToolOutput)
    (call: ToolCall)
    output -> call
    tool_call(output).function.name == "get_inbox"
    call is tool:send_email
    not match(r"^[^@]+@${companyDomain.replaceAll('.', '\\.')}$", call.function.arguments.to)
`;
