import { Component, type ErrorInfo, type ReactNode } from 'react';
import panel from './panel.module.css';
import styles from './error-boundary.module.css';
import { buttonClass } from './button';

interface Props {
  /** 'Admin error' or 'Dashboard error'. */
  label: string;
  children: ReactNode;
}
interface State {
  error: Error | null;
}

/** Normal → error ('{label}: {message}' + Retry) → Retry → normal. */
export class ErrorBoundary extends Component<Props, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error ?? '')) };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('[ui] boundary caught', {
      label: this.props.label,
      error,
      stack: info.componentStack,
    });
  }

  override render() {
    if (!this.state.error) return this.props.children;
    const message = this.state.error.message || 'Unknown error';
    return (
      <div className={`${panel.panel} ${styles['error-screen']}`} role="alert">
        <h2>
          {this.props.label}: {message}
        </h2>
        <p className="muted">Something went wrong while showing this page.</p>
        <button
          type="button"
          className={buttonClass('primary')}
          onClick={() => this.setState({ error: null })}
        >
          Retry
        </button>
      </div>
    );
  }
}
