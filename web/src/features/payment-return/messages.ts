export const PAYMENT_MESSAGES = {
  processing: 'Payment is still processing. Please wait...',
  failed: 'Payment verification failed. Please contact support if payment was made.',
  cancelled: 'Payment cancelled. Your job was not published.',
  paid: 'Payment received! Your job is live and visible to testers.',
  /**
   * Back from checkout signed out (session lost, other browser): the status cannot be read, so
   * nothing is claimed about the payment until the poster signs in.
   */
  unreadable: 'Sign in to see whether your payment went through and your job is live.',
} as const;

/** The success page's heading for each state of the check. */
export const PAYMENT_HEADINGS = {
  processing: 'Checking your payment',
  stalled: 'Payment still processing',
  paid: 'Your job is live',
  failed: 'Payment not confirmed',
  unreadable: 'Sign in to check your payment',
  refunded: 'This job was already paid',
} as const;

/** How often the success page asks again while the payment is still processing. */
export const POLL_MS = 2_000;
export const MAX_POLLS = 30;
