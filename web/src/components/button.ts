import styles from './button.module.css';

/** A button's look: filled (primary, danger), outlined (secondary, ghost, google) or a link. */
export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'danger' | 'google' | 'link';
/** Smaller or larger than the 44 px default, or as wide as its container. */
export type ButtonModifier = 'sm' | 'lg' | 'block';

const VARIANTS: Record<ButtonVariant, string> = {
  primary: styles.primary,
  secondary: styles.secondary,
  ghost: styles.ghost,
  danger: styles.danger,
  google: styles.google,
  link: styles.link,
};
const MODIFIERS: Record<ButtonModifier, string> = {
  sm: styles.sm,
  lg: styles.lg,
  block: styles.block,
};

/**
 * The class names of a button, or of a link that looks like one:
 * `<button className={buttonClass('primary', 'sm')}>`. No variant: the plain bordered button.
 */
export function buttonClass(variant?: ButtonVariant, ...modifiers: ButtonModifier[]): string {
  return [styles.btn, variant && VARIANTS[variant], ...modifiers.map((m) => MODIFIERS[m])]
    .filter(Boolean)
    .join(' ');
}

/** Buttons side by side, wrapping on a narrow screen. */
export const buttonRowClass = styles.row;
/** A square button showing one glyph (a dialog's or a toast's ×). */
export const iconButtonClass = styles.icon;
