import { createContext, type FormEvent, type ReactNode, useContext, useState } from 'react';
import { typedNumber } from '../../../proxy/contracts/amounts.ts';
import { FormError } from './StateViews.tsx';
import { useAsync } from './useAsync.ts';
import { FieldError, useSaveAction } from './useSaveAction.ts';

/**
 * A setting the proxy holds, edited as a draft: load it, keep the edits, save, show the answer. The draft is
 * null while nothing is edited, so a save button can stay off until something changed.
 */
export function useSetting<Saved, Draft>(load: () => Promise<Saved>, key: string) {
  const saved = useAsync(load, key);
  const [draft, setDraft] = useState<Draft | null>(null);
  const action = useSaveAction();
  /**
   * Runs `send`, then drops the draft and shows the setting as the proxy answered it (what another
   * writer changed meanwhile included); `statusOf` words the status line from it.
   */
  const save = async (send: () => Promise<Saved>, statusOf: (answer: Saved) => string | null): Promise<void> => {
    await action.run(async () => {
      const answer = await send();
      setDraft(null);
      saved.replace(answer);
      return statusOf(answer);
    });
  };
  return { saved, draft, setDraft, busy: action.busy, error: action.error, errorField: action.errorField, status: action.status, save };
}

/** A form of number fields, drafted as typed text by the field's name in the control API. */
export type NumberDraft<Field extends string> = Partial<Record<Field, string>>;

/**
 * What a save of number fields sends: only the fields the user edited. The others stay as the
 * proxy holds them when the save lands: another writer (the CLI, a hand edit of airlock.json) may
 * have changed one since the form was filled, and sending the form's old value would undo it.
 * Each is read as the profile form reads its numbers (typedNumber): a field left blank, a decimal comma or a number
 * past the largest double throws a FieldError naming the field, and nothing is sent.
 */
export function editedNumbers<Field extends string>(draft: NumberDraft<Field> | null): Partial<Record<Field, number>> {
  const numbers: Partial<Record<string, number>> = {};
  for (const [field, text] of Object.entries<string | undefined>(draft ?? {})) {
    const typed = typedNumber(text ?? '');
    if (typed === undefined) throw new FieldError(field, 'give a number');
    if (typeof typed === 'object') throw new FieldError(field, typed.problem);
    numbers[field] = typed;
  }
  return numbers as Partial<Record<Field, number>>;
}

/** The id of a setting form's refusal text, for a field to be described by it. */
export const refusalMessageId = (formName: string): string => `${formName}-error`;

/** The field a form's refusal is about, and the id of the refusal's text, for the fields to point at it. */
const RefusalContext = createContext<{ field: string | null; messageId: string }>({ field: null, messageId: '' });

/**
 * A setting's section: title, what it does, a form the browser does not validate (the proxy's
 * refusal names the field and the rule; the browser's own check would block it unseen), and the
 * save's error or status line. The field the error is about is marked invalid and described by it.
 */
export function SettingForm(props: {
  /** The section's class and the prefix of its title's id. */
  name: string;
  title: string;
  description: ReactNode;
  onSubmit(): void;
  error: string | null;
  /** The request field the error is about, as the proxy named it. */
  errorField?: string | null;
  status: string | null;
  children: ReactNode;
}) {
  const titleId = `${props.name}-title`;
  const errorId = refusalMessageId(props.name);
  return (
    <section className={props.name} aria-labelledby={titleId}>
      <h3 id={titleId}>{props.title}</h3>
      <p className="muted">{props.description}</p>
      <form
        noValidate
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          props.onSubmit();
        }}
      >
        <RefusalContext.Provider value={{ field: props.error ? (props.errorField ?? null) : null, messageId: errorId }}>
          {props.children}
        </RefusalContext.Provider>
      </form>
      <FormError message={props.error} id={errorId} />
      {props.status && (
        <p className="ok" role="status">
          {props.status}
        </p>
      )}
    </section>
  );
}

/**
 * A labelled number field; the value stays text so a half-typed number is not lost. Text, not type=number, as the
 * profile form's: Chromium's number input drops what it does not take as it is typed or pasted, so 1,5 became 15.
 */
export function NumberField(props: {
  label: string;
  /** The request field it sets, as the proxy names it in a refusal. */
  field: string;
  value: string;
  onChange(value: string): void;
  /** Whole numbers unless set: the keyboard a touch screen shows. */
  decimal?: boolean;
}) {
  const refusal = useContext(RefusalContext);
  const refused = refusal.field === props.field;
  return (
    <label>
      {props.label}
      <input
        type="text"
        aria-invalid={refused ? true : undefined}
        aria-describedby={refused ? refusal.messageId : undefined}
        inputMode={props.decimal ? 'decimal' : 'numeric'}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
      />
    </label>
  );
}
