export { CancelSubmit, SchemaForm, SubmitButton, type FormResult } from './schema-form';
export {
  Checkbox,
  CheckboxGroup,
  ListField,
  RadioGroup,
  Select,
  TextArea,
  TextField,
} from './fields';
export { errorText, flatErrors, ownErrorText, showServerErrors } from './errors';
export { formSchema, rulesSchema, useSchemaForm, type SchemaFormReturn } from './use-schema-form';
