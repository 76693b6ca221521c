// undici's own module for its Agent (see undiciAgent.ts); its types are those of the class the index exports.
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
