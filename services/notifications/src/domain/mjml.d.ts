/** mjml 5 ships no types (DefinitelyTyped's @types/mjml describes mjml 4, whose mjml2html is synchronous). */
declare module 'mjml' {
  export interface MjmlResult {
    html: string;
    errors: Array<{ line: number; message: string; tagName: string; formattedMessage: string }>;
  }
  export default function mjml2html(
    input: string,
    options?: { validationLevel?: 'strict' | 'soft' | 'skip'; minify?: boolean },
  ): Promise<MjmlResult>;
}
