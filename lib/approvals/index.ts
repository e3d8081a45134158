export { operatorOfPrincipal } from "./person-of-principal";
