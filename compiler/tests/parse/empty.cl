// Nothing but stray semicolons.
;
;;
