/** Types of the `stopword` package (it ships none): the parts the pack clusters use. */
declare module 'stopword' {
  export const eng: string[];
  export function removeStopwords(tokens: string[], stopwords?: string[]): string[];
}
