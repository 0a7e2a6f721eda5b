import { zodResolver } from '@hookform/resolvers/zod';
import { useCallback, useEffect, useLayoutEffect, useRef } from 'react';
import {
  useForm,
  type DefaultValues,
  type FieldValues,
  type Resolver,
  type UseFormReturn,
} from 'react-hook-form';
import { z } from 'zod';
import { clearDraft, hasText, readDraft, writeDraft } from '../../lib/drafts';

/**
 * A form's schema built from an API body's schema: `toBody` turns what the fields hold (strings,
 * '' for "none") into the body, and the body's schema checks it, so its messages (the spec's
 * words) and paths are the fields' errors and a valid submit hands over the parsed body.
 */
export function formSchema<In, Out>(
  toBody: (values: In) => unknown,
  body: z.ZodType<Out>,
): z.ZodType<Out, In> {
  return z.preprocess((v) => toBody(v as In), body) as unknown as z.ZodType<Out, In>;
}

/**
 * A form's schema from a rules function that names what is wrong per field (the landing page's
 * checks, whose messages are the spec's): each entry becomes that field's error.
 */
export function rulesSchema<In>(check: (values: In) => Record<string, string>): z.ZodType<In, In> {
  return z.custom<In>().superRefine((v, ctx) => {
    for (const [field, message] of Object.entries(check(v)))
      ctx.addIssue({ code: 'custom', message, path: [field] });
  }) as unknown as z.ZodType<In, In>;
}

export interface DraftOptions<In> {
  /** The sessionStorage key (DRAFT_KEYS). */
  key: string;
  /** Whether the values hold something typed (else the draft is removed); default: any text. */
  hasContent?: (values: In) => boolean;
  /** What of the values is kept (default: all of them). */
  store?: (values: In) => unknown;
  /** A stored draft from an older shape of the form, made into values (default: merged as is). */
  restore?: (stored: Record<string, unknown>) => Partial<In>;
}

export type SchemaFormReturn<In extends FieldValues, Out> = UseFormReturn<In, unknown, Out> & {
  /** Forgets the sessionStorage draft (after a successful submit, or "Discard draft"). */
  discardDraft: () => void;
};

/**
 * react-hook-form with the zod resolver, set up the same way for every form of the app:
 * validated on submit only (the schema's messages), a field's error goes away as it is edited,
 * focus on the first error is left to `<SchemaForm>` (DOM order, server errors too), and the
 * values may be kept as a draft per tab.
 */
export function useSchemaForm<In extends FieldValues, Out>(
  schema: z.ZodType<Out, In>,
  defaults: In,
  options: { draft?: DraftOptions<In> } = {},
): SchemaFormReturn<In, Out> {
  const { draft } = options;
  // The schema may depend on props (a form built per render): the latest one checks.
  const schemaRef = useRef(schema);
  useLayoutEffect(() => {
    schemaRef.current = schema;
  });
  const resolver = useCallback<Resolver<In, unknown, Out>>(
    (values, ctx, opts) => zodResolver(schemaRef.current)(values, ctx, opts),
    [],
  );
  const form = useForm<In, unknown, Out>({
    resolver,
    defaultValues: (() => {
      if (!draft) return defaults;
      const stored = readDraft<Record<string, unknown>>(draft.key);
      if (!stored) return defaults;
      return { ...defaults, ...(draft.restore ? draft.restore(stored) : stored) };
    })() as DefaultValues<In>,
    mode: 'onSubmit',
    reValidateMode: 'onSubmit',
    shouldFocusError: false,
  });

  const draftRef = useRef(draft);
  useLayoutEffect(() => {
    draftRef.current = draft;
  });
  const key = draft?.key;
  useEffect(() => {
    if (!key) return;
    return form.subscribe({
      formState: { values: true },
      callback: ({ values }) => {
        const d = draftRef.current;
        if (!d) return;
        const has = d.hasContent ?? hasText;
        if (has(values)) writeDraft(d.key, d.store ? d.store(values) : values);
        else clearDraft(d.key);
      },
    });
  }, [form, key]);

  const discardDraft = useCallback(() => {
    if (key) clearDraft(key);
  }, [key]);
  return Object.assign(form, { discardDraft });
}
