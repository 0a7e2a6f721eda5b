/** A paid job as the API answers it, claimed by tester `t`; `over` changes what a test is about. */
export { jobViewFixture as jobView } from '@htm/contracts/testing';
