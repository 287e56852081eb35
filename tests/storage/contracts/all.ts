/** @module Every storage contract, registered in one call for a backend under test. */
import { approvalStoreContract } from "./approval_store.ts";
import { auditLogContract } from "./audit_log.ts";
import type { ContractBackend } from "./backend.ts";
import { brainStoreContract } from "./brain_store.ts";
import { documentStoreContract } from "./document_store.ts";
import { jobQueueContract } from "./job_queue.ts";
import { lockStoreContract } from "./lock_store.ts";
import { oauthStoreContract } from "./oauth_store.ts";
import { searchIndexContract } from "./search_index.ts";
import { sessionStoreContract } from "./session_store.ts";
import { storageHealthContract } from "./storage_health.ts";
import { tokenStoreContract } from "./token_store.ts";
import { traceLogContract } from "./trace_log.ts";
import { unitOfWorkContract } from "./unit_of_work.ts";
import { upstreamCredentialsContract } from "./upstream_credentials.ts";
import { upstreamStoreContract } from "./upstream_store.ts";
import { vectorIndexContract } from "./vector_index.ts";

/** Registers the cases of every port for `backend`. */
export function storageContract(backend: ContractBackend): void {
  brainStoreContract(backend);
  documentStoreContract(backend);
  searchIndexContract(backend);
  vectorIndexContract(backend);
  jobQueueContract(backend);
  sessionStoreContract(backend);
  lockStoreContract(backend);
  tokenStoreContract(backend);
  oauthStoreContract(backend);
  auditLogContract(backend);
  traceLogContract(backend);
  unitOfWorkContract(backend);
  upstreamStoreContract(backend);
  upstreamCredentialsContract(backend);
  approvalStoreContract(backend);
  storageHealthContract(backend);
}
