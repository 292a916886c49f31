/**
 * A tool's name as lower-case words (`sendEmail`, `send_email` and `Send-Email` all read
 * `send email`), for matching the kind of action a name tells.
 * @internal
 */
export const toolWords = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
