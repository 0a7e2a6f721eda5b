import type { PublicProofResponse } from '@htm/contracts/analytics';
import { api } from '../../../lib/api';

/** GET /api/public/proof: the landing's live proof (null while there is too little data). */
const proofApi = api.injectEndpoints({
  endpoints: (build) => ({
    getPublicProof: build.query<PublicProofResponse, void>({
      query: () => '/public/proof',
    }),
  }),
});

export const { useGetPublicProofQuery } = proofApi;
