import { useState } from 'react';
import { FormMessage } from '../../../components/field';
import {
  rulesSchema,
  SchemaForm,
  SubmitButton,
  TextArea,
  TextField,
  useSchemaForm,
  type FormResult,
} from '../../../components/schema-form';
import { useSiteInfo } from '../../../lib/site-info';
import { formErrorMessage } from '../../../lib/error-message';
import { useSendLeadMutation } from '../api/send-lead';
import { MSG, validateLead } from '../landing-rules';
import { buttonClass } from '../../../components/button';
import styles from './developer-lead-form.module.css';

interface Lead {
  email: string;
  thoughts: string;
}

/** 'Looking for a Developer?' lead form → POST /api/leads. */
export function DeveloperLeadForm() {
  const { supportEmail } = useSiteInfo();
  const form = useSchemaForm(
    rulesSchema<Lead>((v) => validateLead(v.email, v.thoughts)),
    { email: '', thoughts: '' },
  );
  const [sendLead] = useSendLeadMutation();
  const [result, setResult] = useState<FormResult>({});
  const send = async (v: Lead) => {
    const res = await sendLead({ email: v.email.trim().toLowerCase(), message: v.thoughts.trim() });
    if ('error' in res && res.error) {
      setResult({ error: formErrorMessage(res.error, MSG.failure) });
      return;
    }
    form.reset({ email: '', thoughts: '' });
    setResult({ success: MSG.leadOk });
  };

  return (
    <div className={styles.lead}>
      <h2 id="lead-title" className={styles.title}>
        Looking for a Developer?
      </h2>
      <p className="muted">
        Testers found something you can't fix yourself? Tell us what you need and we'll connect you
        with a developer.
        {supportEmail ? (
          <>
            {' '}
            Or write to <a href={`mailto:${supportEmail}`}>{supportEmail}</a>.
          </>
        ) : null}
      </p>
      <SchemaForm
        form={form}
        onValid={send}
        onAttempt={() => setResult({})}
        className="form"
        aria-labelledby="lead-title"
      >
        <TextField name="email" label="Your email" type="email" autoComplete="email" />
        <TextArea
          name="thoughts"
          label="Your thoughts"
          rows={3}
          dir="auto"
          placeholder="What do you need built or fixed?"
        />
        <FormMessage error={result.error} success={result.success} />
        <SubmitButton className={buttonClass('secondary')} busyLabel="Sending…">
          Send
        </SubmitButton>
      </SchemaForm>
    </div>
  );
}
