/** The countries a tester may be in (USER_COUNTRIES), as a select's options after "Select…". */
export const COUNTRY_OPTIONS = [
  ['', 'Select…'],
  ['US', 'United States (US)'],
  ['PR', 'Puerto Rico (PR)'],
  ['CA', 'Canada (CA)'],
] as const;
