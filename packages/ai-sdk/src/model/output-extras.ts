import type { LanguageModelV4File, LanguageModelV4Source } from '@ai-sdk/provider';
import type { ModelCallResponse } from '@tracewarden/core';

/**
 * What an answer holds besides text, reasoning and tool calls, recorded in its MESSAGE's
 * metadata so the trace shows it: the sources the model cited (`sources`: URL or document, as
 * the provider gave them) and the files it generated (`files`: media type and size, or URL; never
 * the bytes, which would not fit a MESSAGE's 64 KB).
 * @internal
 */
export class OutputExtras {
  sources: Record<string, unknown>[] | undefined;
  files: Record<string, unknown>[] | undefined;

  add(part: LanguageModelV4Source | LanguageModelV4File): void {
    if (part.type === 'source') (this.sources ??= []).push(sourceRecord(part));
    else (this.files ??= []).push(fileRecord(part));
  }

  /** `response` with the extras in its metadata (the same object when there are none). */
  into(response: ModelCallResponse | undefined): ModelCallResponse | undefined {
    if (this.sources === undefined && this.files === undefined) return response;
    const metadata: Record<string, unknown> = { ...response?.metadata };
    if (this.sources !== undefined) metadata.sources = this.sources;
    if (this.files !== undefined) metadata.files = this.files;
    return { ...response, metadata };
  }
}

/** A cited source as recorded (snake_case, as the trace's metadata is). */
function sourceRecord(part: LanguageModelV4Source): Record<string, unknown> {
  const record: Record<string, unknown> = { source_type: part.sourceType, id: part.id };
  if (part.sourceType === 'url') record.url = part.url;
  else {
    record.media_type = part.mediaType;
    if (part.filename !== undefined) record.filename = part.filename;
  }
  if (part.title !== undefined) record.title = part.title;
  return record;
}

/** A generated file as recorded: its media type and size in bytes, or its URL. */
function fileRecord(part: LanguageModelV4File): Record<string, unknown> {
  // the SDK layer's part (telemetry events) holds a generated file: `{ file: { mediaType, base64 } }`
  const generated = (part as { file?: { mediaType?: unknown; base64?: unknown } }).file;
  if (typeof generated === 'object' && generated !== null) {
    const record: Record<string, unknown> = { media_type: generated.mediaType };
    if (typeof generated.base64 === 'string') record.size_bytes = base64Bytes(generated.base64);
    return record;
  }
  const record: Record<string, unknown> = { media_type: part.mediaType };
  // tagged (`{ type: 'data' | 'url' }`), or bare bytes or base64 as earlier specs gave it
  const tagged = part.data as unknown;
  let data: unknown = tagged;
  if (typeof tagged === 'object' && tagged !== null && !(tagged instanceof Uint8Array)) {
    const { type, url } = tagged as { type?: unknown; url?: unknown };
    if (type === 'url') {
      record.url = String(url);
      return record;
    }
    data = (tagged as { data?: unknown }).data;
  }
  if (data instanceof Uint8Array) record.size_bytes = data.byteLength;
  else if (typeof data === 'string') record.size_bytes = base64Bytes(data);
  return record;
}

/** The number of bytes base64 text decodes to. */
function base64Bytes(text: string): number {
  const trimmed = text.replace(/\s+/g, '');
  let padding = 0;
  if (trimmed.endsWith('==')) padding = 2;
  else if (trimmed.endsWith('=')) padding = 1;
  return Math.max(0, Math.floor((trimmed.length * 3) / 4) - padding);
}
